# The public API, each name listed once: __init__.py reads this list and imports a name's
# module on first use, so that loading the pytest plugin stays cheap.
from pytest_blackwell.device.model import DeviceInfo as DeviceInfo
from pytest_blackwell.engine.config import EngineConfig as EngineConfig
from pytest_blackwell.engine.launcher import EngineError as EngineError
from pytest_blackwell.engine.pool import EngineHandle as EngineHandle
from pytest_blackwell.engine.result import EngineResult as EngineResult
from pytest_blackwell.failures.classify import StreamClassifier as StreamClassifier
from pytest_blackwell.failures.model import Failure as Failure
from pytest_blackwell.failures.rules import DEFAULT_RULES as DEFAULT_RULES
from pytest_blackwell.failures.rules import Rule as Rule
from pytest_blackwell.failures.scan import classify_log as classify_log
from pytest_blackwell.failures.vocabulary import CATEGORIES as CATEGORIES
from pytest_blackwell.failures.vocabulary import STAGES as STAGES
from pytest_blackwell.markers.base import MarkerError as MarkerError

__version__: str
