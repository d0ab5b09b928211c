"""One module per page of the UI; each gives its routes for a `Ui`."""
