from crewai.tools import tool


@tool("Echo Text")
def echo_text(text: str) -> str:
    """Echoes the text."""
    return f"echo: {text}"
