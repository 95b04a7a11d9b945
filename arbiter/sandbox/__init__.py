"""The sandbox: a bot in its own confined process, the wire it answers on, the watchdog and pondering.
"""
