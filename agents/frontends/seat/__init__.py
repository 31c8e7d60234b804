"""The AI seat: the JSON protocol (stdio and HTTP) and the web page served beside it.
"""
