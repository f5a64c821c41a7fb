# A relative import in the script itself: it is in no package.
from .pkg import utils
