"""A crewAI flow's Python actions, run by crewd's tool host in the project's Python.

``code`` calls a ``module:qualname`` callable (a plain function is bound to the flow, as crewAI binds it), ``tool``
builds a ``BaseTool`` subclass with no arguments and runs it, ``script`` runs inline code as the body of
``def _flow_script(state, outputs, input, item)``. The flow crewAI passes as ``self`` is a stand-in holding ``state``:
what code and scripts change in it is sent back to crewd with the result. ``state-schema`` imports a Pydantic state
class and answers its JSON Schema.
"""

import ast
import asyncio
import dataclasses
import datetime
import enum
import importlib
import inspect
import json


class FlowState(dict):
    """A flow's dict or JSON-schema state: a mapping whose keys also read and write as attributes."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError as error:
            raise AttributeError(name) from error

    def __setattr__(self, name, value):
        self[name] = value


class FlowStandIn:
    """What a flow's code sees as ``self``: its name and live state."""

    def __init__(self, name, state):
        self.name = name
        self.state = state


def resolve(reference):
    module_name, _, qualname = reference.partition(":")
    target = importlib.import_module(module_name)
    for part in qualname.split("."):
        target = getattr(target, part)
    return target


def to_json(value):
    """crewAI's ``to_serializable``: models dumped as JSON, dataclasses as dicts, anything unknown as its repr."""
    return json.loads(json.dumps(value, default=_serializable, ensure_ascii=False))


def _serializable(value):
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    if hasattr(value, "__fields__") and hasattr(value, "dict"):
        return value.dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (datetime.date, datetime.datetime, datetime.time)):
        return value.isoformat()
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    return repr(value)


def _state_of(request):
    written = request.get("state") or {}
    model_ref = request.get("stateModel")
    if model_ref:
        model = resolve(model_ref)
        return model.model_validate(written) if hasattr(model, "model_validate") else model.parse_obj(written)
    return FlowState(written)


def _settle(result):
    return asyncio.run(result) if inspect.iscoroutine(result) else result


def run_code(request):
    state = _state_of(request)
    flow = FlowStandIn(request.get("flow", ""), state)
    handler = resolve(request["ref"])
    if not callable(handler):
        raise TypeError(f"invalid do ref {request['ref']!r}; object is not callable")
    if getattr(handler, "__self__", None) is None and hasattr(handler, "__get__") and inspect.isfunction(handler):
        handler = handler.__get__(flow, type(flow))
    kwargs = request.get("kwargs")
    if kwargs is None:
        takes_input = any(
            parameter.kind in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD, parameter.VAR_POSITIONAL)
            for parameter in inspect.signature(handler).parameters.values()
        )
        result = handler(request.get("input")) if takes_input else handler()
    else:
        result = handler(**kwargs)
    return to_json(_settle(result)), to_json(flow.state)


def run_tool(request):
    tool_class = resolve(request["ref"])
    try:
        tool = tool_class()
    except Exception as error:  # noqa: BLE001 - crewAI's words for a tool that needs arguments
        raise TypeError(f"cannot instantiate tool ref {request['ref']!r} without arguments: {error}") from error
    return to_json(_settle(tool.run(**(request.get("kwargs") or {})))), None


def run_script(request):
    filename = f"crewai.flow.script.{request.get('flow', '')}"
    module = ast.parse(request["code"], filename=filename)
    function = ast.FunctionDef(
        name="_flow_script",
        args=ast.arguments(
            posonlyargs=[],
            args=[ast.arg(name) for name in ("state", "outputs", "input", "item")],
            vararg=None,
            kwonlyargs=[],
            kw_defaults=[],
            kwarg=None,
            defaults=[],
        ),
        body=module.body or [ast.Pass()],
        decorator_list=[],
        returns=None,
        type_comment=None,
        **({"type_params": []} if "type_params" in ast.FunctionDef._fields else {}),
    )
    module.body = [function]
    ast.fix_missing_locations(module)
    namespace = {"__name__": filename}
    exec(compile(module, filename, "exec"), namespace)  # noqa: S102 - the project's own trusted flow code
    state = _state_of(request)
    result = namespace["_flow_script"](
        state=state, outputs=request.get("outputs") or {}, input=request.get("input"), item=request.get("item")
    )
    return to_json(_settle(result)), to_json(state)


def state_schema(request):
    model = resolve(request["ref"])
    if hasattr(model, "model_json_schema"):
        schema = dict(model.model_json_schema())
    elif hasattr(model, "schema") and hasattr(model, "__fields__"):
        schema = dict(model.schema())
    else:
        raise TypeError(f"{request['ref']} is not a Pydantic model")
    schema.get("properties", {}).pop("id", None)
    if "required" in schema:
        schema["required"] = [name for name in schema["required"] if name != "id"]
    return schema, None


RUNNERS = {"flow-code": run_code, "flow-tool": run_tool, "flow-script": run_script, "flow-state-schema": state_schema}
