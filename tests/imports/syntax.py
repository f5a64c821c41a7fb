# Imports a module with a syntax error (tests/imports.sh).
from bad import broken
