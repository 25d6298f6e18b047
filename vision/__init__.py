"""Reading a Tigris & Euphrates board from a camera. numpy and OpenCV only; never imports `companion`."""
