"""``BaseTool`` and ``tool`` as crewAI defines them, for tool modules run by crewd without crewAI installed.

Works with Pydantic 2 and Pydantic 1. Names, descriptions and argument schemas are derived as crewAI derives them.
"""

import asyncio
import inspect
from inspect import Parameter, signature
from typing import Any, Callable, Optional, Type

import pydantic
from pydantic import BaseModel, create_model

_PYDANTIC_2 = pydantic.VERSION.startswith("2")

__all__ = ["BaseTool", "EnvVar", "Tool", "tool"]


def _fields_of(model):
    return getattr(model, "model_fields", None) or getattr(model, "__fields__", {})


def _dump(instance):
    return instance.model_dump() if _PYDANTIC_2 else instance.dict()


def _schema_from(function, model_name):
    fields = {}
    for param_name, param in signature(function).parameters.items():
        if param_name in ("self", "return"):
            continue
        if param.kind in (Parameter.VAR_POSITIONAL, Parameter.VAR_KEYWORD):
            continue
        annotation = param.annotation if param.annotation is not param.empty else Any
        fields[param_name] = (annotation, ...) if param.default is param.empty else (annotation, param.default)
    return create_model(model_name, **fields)


class EnvVar(BaseModel):
    name: str
    description: str
    required: bool = True
    default: Optional[str] = None


class BaseTool(BaseModel):
    name: str
    description: str
    args_schema: Optional[Type[BaseModel]] = None
    env_vars: list = []
    result_as_answer: bool = False
    max_usage_count: Optional[int] = None
    current_usage_count: int = 0

    if _PYDANTIC_2:
        model_config = {"arbitrary_types_allowed": True}
    else:

        class Config:
            arbitrary_types_allowed = True

    def __init__(self, **data):
        super().__init__(**data)
        if self.args_schema is None:
            cls = type(self)
            source = cls._run if cls._run is not BaseTool._run else cls._arun
            self.args_schema = _schema_from(source, f"{cls.__name__}Schema")

    def _validate_kwargs(self, kwargs):
        if self.args_schema is not None and _fields_of(self.args_schema):
            return _dump(self.args_schema(**kwargs))
        return kwargs

    def run(self, *args, **kwargs):
        if not args:
            kwargs = self._validate_kwargs(kwargs)
        if self.max_usage_count is not None and self.current_usage_count >= self.max_usage_count:
            return (
                f"Tool '{self.name}' has reached its usage limit of {self.max_usage_count} times "
                "and cannot be used anymore."
            )
        self.current_usage_count += 1
        result = self._run(*args, **kwargs)
        if inspect.iscoroutine(result):
            result = asyncio.run(result)
        return result

    async def arun(self, *args, **kwargs):
        if not args:
            kwargs = self._validate_kwargs(kwargs)
        return await self._arun(*args, **kwargs)

    def _run(self, *args, **kwargs):
        # A tool that only defines _arun runs it here (crewAI asks for _run; crewd lets either stand).
        if type(self)._arun is not BaseTool._arun:
            return self._arun(*args, **kwargs)
        raise NotImplementedError(f"{type(self).__name__} does not implement _run")

    async def _arun(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} does not implement _arun")


class Tool(BaseTool):
    func: Callable

    def _run(self, *args, **kwargs):
        return self.func(*args, **kwargs)


def tool(*args, result_as_answer=False, max_usage_count=None):
    """``@tool``, ``@tool("Name")`` or ``@tool(result_as_answer=True)``, as in crewAI."""

    def make_with_name(tool_name):
        def make_tool(function):
            if function.__doc__ is None:
                raise ValueError("Function must have a docstring")
            class_name = "".join(tool_name.split()).title()
            return Tool(
                name=tool_name,
                description=function.__doc__,
                func=function,
                args_schema=_schema_from(function, class_name),
                result_as_answer=result_as_answer,
                max_usage_count=max_usage_count,
            )

        return make_tool

    if len(args) == 1 and callable(args[0]):
        return make_with_name(args[0].__name__)(args[0])
    if len(args) == 1 and isinstance(args[0], str):
        return make_with_name(args[0])
    if len(args) == 0:
        return lambda function: make_with_name(function.__name__)(function)
    raise ValueError("Invalid arguments")
