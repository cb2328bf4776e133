"""The base every part may use: errors, argument checks (options), file names and atomic writes, package
versions. Imports nothing else of verify."""
