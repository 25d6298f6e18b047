"""The Tigris & Euphrates table companion."""
