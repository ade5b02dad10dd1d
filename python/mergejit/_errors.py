# SPDX-License-Identifier: Apache-2.0
"""One exception class per mj_status, all under MergejitError."""
from __future__ import annotations

from typing import Dict, Optional, Type


class MergejitError(Exception):
    """A mergejit failure: .status is the status's name (e.g. "MJ_ERR_COMPILE"), .message the
    library's message (with NVRTC's log for code that did not compile)."""

    status: str = "MJ_ERR"

    def __init__(self, message: str, status: Optional[str] = None) -> None:
        super().__init__(message)
        if status is not None:
            self.status = status
        self.message = message

    def __str__(self) -> str:
        return "%s: %s" % (self.status, self.message)


# One class statement each (not made by a function), so that type checkers know them as
# exception classes.
class InvalidArgumentError(MergejitError, ValueError):
    """A bad argument: found by the package (array layout, dtype, sizes) or by the library."""
    status = "MJ_ERR_INVALID_ARGUMENT"


# Dtypes that no key kind or C struct can represent; also a TypeError, as numpy's are.
class DtypeError(InvalidArgumentError, TypeError):
    """A dtype mergejit cannot sort or move (see the message)."""


class HostMemoryError(MergejitError, MemoryError):
    """Host allocation failed."""
    status = "MJ_ERR_HOST_MEMORY"


class NoDriverError(MergejitError):
    """libcuda could not be loaded or initialised."""
    status = "MJ_ERR_NO_DRIVER"


class NoDeviceError(MergejitError):
    """No CUDA device, or the ordinal is out of range."""
    status = "MJ_ERR_NO_DEVICE"


class NoCompilerError(MergejitError):
    """libnvrtc could not be loaded."""
    status = "MJ_ERR_NO_COMPILER"


class CompileError(MergejitError):
    """NVRTC rejected the generated code; the message holds its log."""
    status = "MJ_ERR_COMPILE"


class DeviceMemoryError(MergejitError, MemoryError):
    """Device allocation failed."""
    status = "MJ_ERR_DEVICE_MEMORY"


class CudaError(MergejitError):
    """A CUDA driver call failed."""
    status = "MJ_ERR_CUDA"


class CacheError(MergejitError):
    """The disk cache could not be used, or its directory is unsafe."""
    status = "MJ_ERR_CACHE"


class UnsupportedError(MergejitError):
    """Valid, but this build, context or device cannot do it."""
    status = "MJ_ERR_UNSUPPORTED"


class TooLargeError(MergejitError, OverflowError):
    """A count too large for the call."""
    status = "MJ_ERR_TOO_LARGE"


class FileError(MergejitError):
    """A tuning file or bundle is missing, unreadable or damaged."""
    status = "MJ_ERR_FILE"


class NotInBundleError(MergejitError):
    """The context's bundle lacks the kernels asked for."""
    status = "MJ_ERR_NOT_IN_BUNDLE"


class RankTimeoutError(MergejitError, TimeoutError):
    """A sort across GPUs waited past its timeout for another rank; its communicator was
    aborted."""
    status = "MJ_ERR_TIMEOUT"


BY_STATUS: Dict[str, Type[MergejitError]] = {c.status: c for c in (
    InvalidArgumentError, HostMemoryError, NoDriverError, NoDeviceError, NoCompilerError,
    CompileError, DeviceMemoryError, CudaError, CacheError, UnsupportedError, TooLargeError,
    FileError, NotInBundleError, RankTimeoutError)}


def error_for(status_name: str, message: str) -> MergejitError:
    """The exception for a status name; statuses this package does not know yet (a newer
    library) give a plain MergejitError that still carries the name."""
    cls = BY_STATUS.get(status_name)
    return cls(message) if cls else MergejitError(message, status_name)
