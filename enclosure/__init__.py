"""Parametric enclosure of the Gulo Gulo nest (CadQuery). See ASSEMBLY.md."""
