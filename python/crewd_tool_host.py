"""crewd's Python tool host: builds a crewAI project's tools and runs their calls for crewd.

Started by crewd with the project's interpreter. It speaks one JSON object per line: requests on stdin, answers on a
copy of the original stdout. Before any project code is imported, file descriptor 1 and ``sys.stdout`` are pointed
at stderr and stdin at /dev/null, so a tool that prints or reads cannot break the protocol.
"""

import asyncio
import importlib
import inspect
import json
import os
import sys
import threading
import traceback
from concurrent.futures import ThreadPoolExecutor

_protocol_in = os.fdopen(os.dup(0), "rb")
_protocol_out = os.fdopen(os.dup(1), "wb", buffering=0)
sys.stdout.flush()
os.dup2(2, 1)
_devnull = os.open(os.devnull, os.O_RDONLY)
os.dup2(_devnull, 0)
sys.stdout = sys.stderr
sys.stdin = open(os.devnull, "r", encoding="utf-8")

_write_lock = threading.Lock()
_tools = {}
_config = json.loads(sys.argv[1])
_project_root = os.path.realpath(_config["projectRoot"])
_max_result_chars = int(_config.get("maxResultChars", 1_000_000))


def _send(message):
    line = (json.dumps(message, ensure_ascii=False, default=str) + "\n").encode("utf-8")
    with _write_lock:
        _protocol_out.write(line)


def _error_text(error):
    text = str(error).strip()
    name = type(error).__name__
    return f"{name}: {text}" if text else name


def _project_frame(error):
    """The innermost place in the project's own files the error passed through, as (file, line)."""
    if isinstance(error, SyntaxError) and error.filename:
        found = _relative(error.filename)
        if found is not None:
            return found, error.lineno
    place = None
    for frame in traceback.extract_tb(error.__traceback__):
        relative = _relative(frame.filename)
        if relative is not None:
            place = (relative, frame.lineno)
    return place if place is not None else (None, None)


def _relative(filename):
    if not filename or filename.startswith("<"):
        return None
    full = os.path.realpath(filename)
    if not full.startswith(_project_root + os.sep):
        return None
    relative = os.path.relpath(full, _project_root)
    if relative.startswith(".venv" + os.sep) or (os.sep + "site-packages" + os.sep) in full:
        return None
    return relative.replace(os.sep, "/")


def _failure(request_id, error, **extra):
    file, line = _project_frame(error)
    answer = {"id": request_id, "ok": False, "error": _error_text(error), **extra}
    if file is not None:
        answer["file"] = file
        answer["line"] = line
    return answer


def _schema_of(args_schema):
    if args_schema is None:
        return {"type": "object", "properties": {}}
    if hasattr(args_schema, "model_json_schema"):
        schema = args_schema.model_json_schema()
    else:
        schema = args_schema.schema()
    schema = dict(schema)
    # crewAI sends the model the schema without its title and description (agent_utils).
    schema.pop("title", None)
    schema.pop("description", None)
    schema.setdefault("type", "object")
    schema.setdefault("properties", {})
    return schema


def _build(request):
    builtin = request.get("builtin", False)
    try:
        module = importlib.import_module(request["module"])
    except ModuleNotFoundError as error:
        if builtin and error.name is not None and error.name.split(".")[0] == request["module"].split(".")[0]:
            return {"id": request["id"], "ok": False, "absent": True, "error": _error_text(error)}
        return _failure(request["id"], error)
    except BaseException as error:  # noqa: BLE001 - any failure of user code is reported, not fatal
        return _failure(request["id"], error)
    target = getattr(module, request["attribute"], None)
    if target is None:
        if builtin:
            return {"id": request["id"], "ok": False, "absent": True, "error": "not found"}
        return {
            "id": request["id"],
            "ok": False,
            "error": f"AttributeError: module '{request['module']}' has no attribute '{request['attribute']}'",
        }
    try:
        # A class is built with crew.py's arguments; a flow's tool ref may name either, as crewAI takes both.
        if request["kind"] == "class" and inspect.isclass(target):
            instance = target(*request.get("args", []), **request.get("kwargs", {}))
        else:
            instance = target
        name = getattr(instance, "name")
        description = getattr(instance, "description", "") or ""
        schema = _schema_of(getattr(instance, "args_schema", None))
        if not callable(getattr(instance, "run", None)):
            raise TypeError(f"{request['attribute']} is not a crewAI tool: it has no run()")
    except BaseException as error:  # noqa: BLE001
        return _failure(request["id"], error)
    _tools[request["key"]] = instance
    return {"id": request["id"], "ok": True, "name": str(name), "description": str(description), "schema": schema}


def _call(request):
    request_id = request["id"]
    try:
        instance = _tools[request["key"]]
        arguments = request.get("input") or {}
        result = instance.run(**arguments)
        if inspect.iscoroutine(result):
            result = asyncio.run(result)
        text = result if isinstance(result, str) else str(result)
        if len(text) > _max_result_chars:
            text = text[:_max_result_chars] + (
                f"\n\n[Output truncated: the tool returned {len(text)} characters; "
                f"only the first {_max_result_chars} are kept.]"
            )
        answer = {"id": request_id, "ok": True, "result": text}
    except BaseException as error:  # noqa: BLE001
        answer = {"id": request_id, "ok": False, "error": _error_text(error)}
    try:
        _send(answer)
    except BaseException:  # noqa: BLE001 - crewd has gone; nothing to tell
        os._exit(0)


def _flow_action(request):
    """A flow's Python action or state class (crewd_flow_actions): the result and the state it leaves, as JSON."""
    import crewd_flow_actions

    request_id = request["id"]
    try:
        value, state = crewd_flow_actions.RUNNERS[request["op"]](request)
        answer = {"id": request_id, "ok": True, "value": value}
        if state is not None:
            answer["state"] = state
    except BaseException as error:  # noqa: BLE001
        answer = _failure(request_id, error)
    try:
        _send(answer)
    except BaseException:  # noqa: BLE001 - crewd has gone; nothing to tell
        os._exit(0)


def _ready():
    import importlib.util

    crewai = "project"
    if importlib.util.find_spec("crewai") is None:
        # crewAI is not installed: the small part of crewai.tools that tool modules import comes from crewd.
        sys.path.append(_config["shim"])
        crewai = "crewd"
    try:
        import pydantic

        pydantic_version = pydantic.VERSION
    except ImportError:
        pydantic_version = None
    version = ".".join(str(part) for part in sys.version_info[:3])
    return {
        "type": "ready",
        "python": version,
        "executable": sys.executable,
        "crewai": crewai,
        "pydantic": pydantic_version,
    }


def main():
    for entry in reversed(_config.get("paths", [])):
        if entry not in sys.path:
            sys.path.insert(0, entry)
    _send(_ready())
    workers = ThreadPoolExecutor(max_workers=int(_config.get("workers", 16)))
    for raw in _protocol_in:
        try:
            request = json.loads(raw)
        except ValueError:
            continue
        if request.get("op") == "build":
            _send(_build(request))
        elif request.get("op") == "call":
            workers.submit(_call, request)
        elif str(request.get("op", "")).startswith("flow-"):
            workers.submit(_flow_action, request)
        elif request.get("op") == "ping":
            _send({"id": request["id"], "ok": True})
    # stdin closed: crewd is done with this host, or has died. Calls under way get a moment to finish; one that hangs
    # must not keep the host alive with nobody left to answer.
    deadline = threading.Timer(2.0, os._exit, (0,))
    deadline.daemon = True
    deadline.start()
    workers.shutdown(wait=True)
    os._exit(0)


if __name__ == "__main__":
    main()
