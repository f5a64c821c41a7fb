# Found through TNGC_PATH: a reduce-overhead backend, re-exported from a
# module of its own folder.
from env_config import backend
