import pytest

from static_files import read_static


@pytest.fixture
def site(tmp_path):
    root = tmp_path / "static"
    (root / "css").mkdir(parents=True)
    (root / "css" / "site.css").write_text("body {}")
    (root / "index.html").write_text("<h1>hi</h1>")
    (tmp_path / "secret.txt").write_text("password")
    (tmp_path / "static-evil").mkdir()
    (tmp_path / "static-evil" / "x.txt").write_text("evil")
    return root


def test_files_inside_root_are_served(site):
    assert read_static(site, "css/site.css") == b"body {}"
    assert read_static(str(site), "index.html") == b"<h1>hi</h1>"
    assert read_static(site, "css/../index.html") == b"<h1>hi</h1>"


@pytest.mark.parametrize("name", ["../secret.txt", "css/../../secret.txt",
                                  "../static-evil/x.txt"])
def test_dot_dot_is_refused(site, name):
    with pytest.raises(PermissionError):
        read_static(site, name)


def test_absolute_path_is_refused(site):
    with pytest.raises(PermissionError):
        read_static(site, str(site.parent / "secret.txt"))


def test_symlink_out_is_refused(site):
    (site / "link.txt").symlink_to(site.parent / "secret.txt")
    with pytest.raises(PermissionError):
        read_static(site, "link.txt")
