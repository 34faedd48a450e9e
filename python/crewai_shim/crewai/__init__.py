"""crewd's stand-in for crewAI where the project's Python has none: only what tool modules import (crewai.tools)."""
