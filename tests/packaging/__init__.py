"""The distributions as a user gets them: the version stated once, the sdist and the wheel built and installed."""
