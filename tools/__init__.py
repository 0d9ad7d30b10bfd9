"""Scripts around the simulator, as one package (tools/README.md)."""
