"""The commands of ``blindchess``: one module a subcommand, each parsing its arguments and calling the library.
"""
