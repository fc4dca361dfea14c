# The public names of pytest_blackwell.device, each listed once: __init__.py reads this list.
from pytest_blackwell.device.detect import REQUEST_ENV_VAR as REQUEST_ENV_VAR
from pytest_blackwell.device.detect import DetectionReport as DetectionReport
from pytest_blackwell.device.detect import ProviderSkipped as ProviderSkipped
from pytest_blackwell.device.detect import detect_devices as detect_devices
from pytest_blackwell.device.detect import host_device as host_device
from pytest_blackwell.device.model import DeviceInfo as DeviceInfo
from pytest_blackwell.device.model import describe_devices as describe_devices
from pytest_blackwell.device.profiles import ARCHITECTURES as ARCHITECTURES
from pytest_blackwell.device.profiles import PROFILES as PROFILES
from pytest_blackwell.device.profiles import ArchSpec as ArchSpec
from pytest_blackwell.device.profiles import DeviceProfileError as DeviceProfileError
from pytest_blackwell.device.profiles import arch_spec as arch_spec
from pytest_blackwell.device.profiles import load_profile as load_profile
