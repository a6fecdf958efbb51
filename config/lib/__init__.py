"""Small shared helpers with no knowledge of the apps: SQL statements built once per model
(`statements`) and CSV files a spreadsheet opens safely (`csvfiles`). Every app may import them;
they import no app. (They live under config/ because the repository's top level is fixed.)"""
