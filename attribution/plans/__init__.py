"""Commission plans (docs/plans.md): a brand's versioned document of rules, parsed and validated
(document), priced without the database (engine), kept per brand and version in the process (cache), and
read, written, previewed and applied (store)."""
