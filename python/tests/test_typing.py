# SPDX-License-Identifier: Apache-2.0
"""The package's annotations as Python itself reads them (mypy checks them: the suite's
python_typing test): every public function's and method's resolve on this Python (3.8's typing
included), the results are named tuples with typed fields, the errors real classes, and the
package says it is typed (py.typed)."""
import inspect
import os
import typing

import pytest

import mergejit


def _public():
    for name in mergejit.__all__:
        obj = getattr(mergejit, name)
        if inspect.isfunction(obj):
            yield name, obj
        elif inspect.isclass(obj):
            for attr, member in vars(obj).items():
                if inspect.isfunction(member) and (not attr.startswith("_") or
                                                   attr == "__init__"):
                    yield "%s.%s" % (name, attr), member
                elif isinstance(member, property) and not attr.startswith("_"):
                    yield "%s.%s" % (name, attr), member.fget


@pytest.mark.parametrize("name,fn", list(_public()), ids=lambda v: v if isinstance(v, str) else "")
def test_public_annotations_resolve(name, fn):
    hints = typing.get_type_hints(fn)
    assert "return" in hints, "%s has no return annotation" % name
    params = [p for p in inspect.signature(fn).parameters if p not in ("self", "cls")]
    missing = [p for p in params if p not in hints]
    assert not missing, "%s: parameters without annotations: %s" % (name, missing)


def test_result_tuples():
    assert mergejit.SortResult._fields == ("values", "indices")
    assert mergejit.SearchResult._fields == ("a_indices", "a_matches", "a_counts", "b_indices",
                                             "b_matches", "match_counts")
    assert mergejit.KeyType._fields == ("kind", "type_name", "type_source", "size", "align")
    values, indices = mergejit.SortResult(1, 2)
    assert (values, indices) == (1, 2)
    assert typing.get_type_hints(mergejit.KeyType)["size"] is int


def test_errors_are_classes_under_mergejit_error():
    for name in mergejit.__all__:
        obj = getattr(mergejit, name)
        if name.endswith("Error"):
            assert inspect.isclass(obj) and issubclass(obj, mergejit.MergejitError), name
            assert obj.__module__ == "mergejit._errors" and obj.__doc__, name
    assert issubclass(mergejit.DtypeError, mergejit.InvalidArgumentError)
    assert issubclass(mergejit.DtypeError, TypeError)
    assert issubclass(mergejit.InvalidArgumentError, ValueError)
    assert mergejit.DtypeError.status == "MJ_ERR_INVALID_ARGUMENT"
    e = mergejit.CompileError("the log")
    assert (e.status, e.message, str(e)) == ("MJ_ERR_COMPILE", "the log",
                                             "MJ_ERR_COMPILE: the log")


def test_py_typed():
    assert os.path.isfile(os.path.join(os.path.dirname(mergejit.__file__), "py.typed"))
    assert mergejit.DeviceArray is typing.Any
