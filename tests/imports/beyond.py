# Imports a module whose relative import goes beyond its top-level package.
import pkg.beyond
