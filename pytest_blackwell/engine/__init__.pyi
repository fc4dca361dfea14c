# The public names of pytest_blackwell.engine, each listed once: __init__.py reads this list.
from pytest_blackwell.engine.config import EngineConfig as EngineConfig
from pytest_blackwell.engine.launcher import DEFAULT_STAGE_LIMITS as DEFAULT_STAGE_LIMITS
from pytest_blackwell.engine.launcher import EngineError as EngineError
from pytest_blackwell.engine.launcher import Limits as Limits
from pytest_blackwell.engine.pool import EngineHandle as EngineHandle
from pytest_blackwell.engine.pool import EnginePool as EnginePool
from pytest_blackwell.engine.result import EngineResult as EngineResult
