"""Each model drawn in one format: SVG (pure Python), Mermaid, matplotlib and plain text. A renderer knows its
model and nothing of agents, runs or contracts."""
