import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


@pytest.fixture
def spec_root(tmp_path):
    """A scratch project root with the real schema, types and constants but no family files."""
    (tmp_path / "spec").mkdir()
    for name in ("schema.json", "types.yaml", "constants.yaml"):
        shutil.copy(ROOT / "spec" / name, tmp_path / "spec" / name)
    (tmp_path / "templates").symlink_to(ROOT / "templates")
    return tmp_path
