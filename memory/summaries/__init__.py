"""The summary levels of transient memory: daily (one call per guild-day) and historical."""
