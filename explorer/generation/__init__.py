"""Writing responses: the NPOV response generator of Chang et al. 2024 (§2.1), run in this process
or on an OpenAI-compatible server, and the triplet extractor of RefChecker (Hu et al. 2024)."""
