"""Subcommands of `autograd-course`, one module each.

A command module defines NAME, HELP, add_arguments(parser) and main(args) -> int;
the CLI finds every module in this package, so a new command is a new file.
"""
