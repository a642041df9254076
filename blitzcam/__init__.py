"""blitzcam: a scoring assistant for Dutch Blitz (the counting, the rules, the app, the models).

Nothing in it reaches the network. ONNX Runtime (1.32) looks up Microsoft's telemetry host from
its first session unless told not to (DNS queries for mobile.events.data.microsoft.com, seen
with strace): it is told here, before anything of the package can load it, and the
processes it starts inherit it.
"""

import os

os.environ["ORT_DISABLE_TELEMETRY"] = "1"
