"""The demo world that seed_demo builds: world (the brands, clicks, codes and users, and the promises it keeps),
keys (the demo developer keys, kept across runs), summary (what a person needs after `make run`) and
examples (the orders behind the OpenAPI examples); standin (the platforms' stand-in the demo serves, which the
tests and the bench use too)."""
