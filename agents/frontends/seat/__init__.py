"""The AI seat: the JSON protocol (stdio and HTTP) and the web page served beside it.

:mod:`.protocol` (the methods and their dispatch, :class:`~.protocol.Seat`), :mod:`.fields`
(the request fields and their checks), :mod:`.encoding` (JSON in and out, the error
codes), :mod:`.workers` (threads and deadlines), :mod:`.stdio` and :mod:`.http` (the
transports), :mod:`.connections` (the limits on one HTTP connection and the log of
refusals), :mod:`.web` (the page).
"""
