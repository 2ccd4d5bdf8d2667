"""Pure detection functions: no I/O beyond reading the packaged rules file, no store imports."""
