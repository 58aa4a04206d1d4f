import minifw


def test_package_imports():
    assert minifw.TransformerConfig().validate()
