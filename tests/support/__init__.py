"""What the tests share: helpers, scripted servers and data, and scripts the tests run as
processes. Test files import from here, never from one another or from conftest.py."""
