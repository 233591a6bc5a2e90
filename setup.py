"""Maps the three top-level folders onto one installed package.

`core/` is `funes`, `plugins/` is `funes.plugins`, `installers/` is `funes.installers`; the
package list is computed so a new subpackage needs no edit here.
"""

from setuptools import find_packages, setup

ROOTS = {"funes": "core", "funes.plugins": "plugins", "funes.installers": "installers"}


def _packages() -> tuple[list[str], dict[str, str]]:
    packages: list[str] = []
    package_dir: dict[str, str] = {}
    for name, folder in ROOTS.items():
        packages.append(name)
        package_dir[name] = folder
        for sub in find_packages(folder):
            packages.append(f"{name}.{sub}")
            package_dir[f"{name}.{sub}"] = f"{folder}/{sub.replace('.', '/')}"
    return packages, package_dir


PACKAGES, PACKAGE_DIR = _packages()
setup(packages=PACKAGES, package_dir=PACKAGE_DIR)
