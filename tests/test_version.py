"""Version strings from git: scripts/version.sh and scripts/deb-version.sh."""
import os
import subprocess
from pathlib import Path

TOP = Path(__file__).resolve().parents[1]


def test_version_without_tags(tmp_path):
    """A clone that lost the tags counts from the release NEWS dates, like describe."""
    def git(*args, cwd=tmp_path / "c"):
        return subprocess.run(["git", "-C", str(cwd), *args], text=True, check=True,
                              capture_output=True).stdout.strip()
    env_id = ["-c", "user.name=t", "-c", "user.email=t@t"]
    (tmp_path / "c").mkdir()
    git("init", "-q")
    (tmp_path / "c/NEWS").write_text("0.1.0 (the untagged snapshots)\n")
    git("add", "NEWS")
    git(*env_id, "commit", "-qm", "first")
    (tmp_path / "c/NEWS").write_text("1.4.2 (2026-01-02)\n=====\n\n0.1.0 (old)\n")
    git(*env_id, "commit", "-qam", "release")
    rel = git("rev-parse", "HEAD")
    (tmp_path / "c/NEWS").write_text("Since 1.4.2 (not released)\n\n1.4.2 (2026-01-02)\n")
    git(*env_id, "commit", "-qam", "after")
    (tmp_path / "c/x").write_text("x\n")
    git("add", "x")
    git(*env_id, "commit", "-qm", "more")

    def version():
        return subprocess.run([str(TOP / "scripts/version.sh"), str(tmp_path / "c")],
                              text=True, check=True, capture_output=True).stdout.strip()
    head = git("rev-parse", "--short", "HEAD")
    assert version() == f"1.4.2-2-g{head}"
    git("tag", "-a", "v1.4.2", rel, "-m", "1.4.2")
    assert version() == f"1.4.2-2-g{head}", "describe and the fallback disagree"
    (tmp_path / "c/x").write_text("y\n")
    assert version().endswith("-dirty")


def test_deb_version_from_git(tmp_path):
    """make deb's version: git's, Debian-spelt, and each later build sorts higher."""
    def git(*args):
        return subprocess.run(["git", "-C", str(tmp_path / "c"), "-c", "user.name=t",
                               "-c", "user.email=t@t", *args], text=True, check=True,
                              capture_output=True).stdout.strip()

    def deb():
        return subprocess.run([str(TOP / "scripts/deb-version.sh"), str(tmp_path / "c")],
                              text=True, check=True, capture_output=True).stdout.strip()

    def newer(a, b):
        return subprocess.run(["dpkg", "--compare-versions", a, "gt", b]).returncode == 0
    (tmp_path / "c").mkdir()
    git("init", "-q")
    (tmp_path / "c/NEWS").write_text("1.4.2 (2026-01-02)\n")
    git("add", "NEWS")
    git("commit", "-qm", "release")
    git("tag", "-a", "v1.4.2", "-m", "1.4.2")
    assert deb() == "1.4.2-1"
    (tmp_path / "c/x").write_text("x\n")
    git("add", "x")
    git("commit", "-qm", "one on")
    one = deb()
    assert one == f"1.4.2+git1.g{git('rev-parse', '--short', 'HEAD')}-1" and newer(one, "1.4.2-1")
    (tmp_path / "c/x").write_text("y\n")
    os.utime(tmp_path / "c/x", (1_800_000_000, 1_800_000_000))
    dirty = deb()
    assert dirty == one[:-2] + ".dirty.20270115080000-1", dirty
    assert deb() == dirty, "two builds of one tree, two versions"
    assert newer(dirty, one)
    os.utime(tmp_path / "c/x", (1_800_000_060, 1_800_000_060))
    assert newer(deb(), dirty), "a later edit does not sort higher"
    git("commit", "-qam", "two on")
    assert newer(deb(), dirty) and "+git2." in deb()
    git("tag", "-a", "v1.4.3", "-m", "1.4.3")
    assert deb() == "1.4.3-1" and newer(deb(), dirty)
