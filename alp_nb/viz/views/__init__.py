"""The views of the core classes: each class shown as HTML, plain text or Markdown (``rendering.VIEWS`` names
which module and functions), the review packet as documents, and a run as one offline page."""
