"""Writing responses: the NPOV response generator of Chang et al. 2024 (§2.1) and the triplet
extractor of RefChecker (Hu et al. 2024), both prompted local causal LMs."""
