# A relative import beyond the top-level package: an error at this line.
from ... import something
