"""`nest web`: the play page. A local web server in front of a virtual nest board running the real
firmware; the page shows the board's LEDs, buzzer, console and the simulated world, and every
click goes to the board's buttons or to the world (hands, pole, eggs). See server.py."""
