"""The contract of the event endpoints: each request's fields in decision order with their rules
(serializers), what each rule accepts as JSON Schema (field_schemas) and the OpenAPI examples' names
(examples). The API views and the decision both use it, so it imports neither."""
