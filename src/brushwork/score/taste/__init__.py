"""The personal taste model: image features + a Bradley–Terry preference head fit on a pool."""
