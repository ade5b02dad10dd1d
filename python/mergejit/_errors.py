# SPDX-License-Identifier: Apache-2.0
"""One exception class per mj_status, all under MergejitError."""


class MergejitError(Exception):
    """A mergejit failure: .status is the status's name (e.g. "MJ_ERR_COMPILE"), .message the
    library's message (with NVRTC's log for code that did not compile)."""

    status = "MJ_ERR"

    def __init__(self, message, status=None):
        super().__init__(message)
        if status is not None:
            self.status = status
        self.message = message

    def __str__(self):
        return "%s: %s" % (self.status, self.message)


def _status_class(name, status, doc, *bases):
    return type(name, (MergejitError,) + bases, {"status": status, "__doc__": doc})


InvalidArgumentError = _status_class(
    "InvalidArgumentError", "MJ_ERR_INVALID_ARGUMENT",
    "A bad argument: found by the package (array layout, dtype, sizes) or by the library.",
    ValueError)
# Dtypes that no key kind or C struct can represent; also a TypeError, as numpy's are.
DtypeError = type("DtypeError", (InvalidArgumentError, TypeError),
                  {"__doc__": "A dtype mergejit cannot sort or move (see the message)."})
HostMemoryError = _status_class("HostMemoryError", "MJ_ERR_HOST_MEMORY",
                                "Host allocation failed.", MemoryError)
NoDriverError = _status_class("NoDriverError", "MJ_ERR_NO_DRIVER",
                              "libcuda could not be loaded or initialised.")
NoDeviceError = _status_class("NoDeviceError", "MJ_ERR_NO_DEVICE",
                              "No CUDA device, or the ordinal is out of range.")
NoCompilerError = _status_class("NoCompilerError", "MJ_ERR_NO_COMPILER",
                                "libnvrtc could not be loaded.")
CompileError = _status_class("CompileError", "MJ_ERR_COMPILE",
                             "NVRTC rejected the generated code; the message holds its log.")
DeviceMemoryError = _status_class("DeviceMemoryError", "MJ_ERR_DEVICE_MEMORY",
                                  "Device allocation failed.", MemoryError)
CudaError = _status_class("CudaError", "MJ_ERR_CUDA", "A CUDA driver call failed.")
CacheError = _status_class("CacheError", "MJ_ERR_CACHE",
                           "The disk cache could not be used, or its directory is unsafe.")
UnsupportedError = _status_class("UnsupportedError", "MJ_ERR_UNSUPPORTED",
                                 "Valid, but this build, context or device cannot do it.")
TooLargeError = _status_class("TooLargeError", "MJ_ERR_TOO_LARGE",
                              "A count too large for the call.", OverflowError)
FileError = _status_class("FileError", "MJ_ERR_FILE",
                          "A tuning file or bundle is missing, unreadable or damaged.")
NotInBundleError = _status_class("NotInBundleError", "MJ_ERR_NOT_IN_BUNDLE",
                                 "The context's bundle lacks the kernels asked for.")

BY_STATUS = {c.status: c for c in (
    InvalidArgumentError, HostMemoryError, NoDriverError, NoDeviceError, NoCompilerError,
    CompileError, DeviceMemoryError, CudaError, CacheError, UnsupportedError, TooLargeError,
    FileError, NotInBundleError)}


def error_for(status_name, message):
    """The exception for a status name; statuses this package does not know yet (a newer
    library) give a plain MergejitError that still carries the name."""
    cls = BY_STATUS.get(status_name)
    return cls(message) if cls else MergejitError(message, status_name)
