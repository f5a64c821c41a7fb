# A package of the multi-file test model (tests/imports.sh): its __init__
# re-exports the attention layer and pulls in its helpers module.
from .layers import Attention
from . import utils

VERSION = 2
