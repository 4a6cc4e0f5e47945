"""criss_rag plugin for cancer-registry staging guidance: diagnosis years, staging versions and
ICD-O-3 code ranges."""
