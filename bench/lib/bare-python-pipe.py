"""Figure 12's baseline: the same Python function behind the plainest pipe, one JSON line in and one out."""

import json
import sys

sys.path.insert(0, sys.argv[1])
if len(sys.argv) > 2:
    sys.path.append(sys.argv[2])

from python_tools.tools.custom_tool import echo_text  # noqa: E402

function = getattr(echo_text, "func", echo_text)
for line in sys.stdin:
    request = json.loads(line)
    sys.stdout.write(json.dumps({"id": request["id"], "result": function(**request["input"])}) + "\n")
    sys.stdout.flush()
