#!/usr/bin/env python3
"""Prints each failed test of a Swift Testing xUnit file as Target.Suite/name(), one a line."""
import sys
import xml.etree.ElementTree as ElementTree

for case in ElementTree.parse(sys.argv[1]).iter("testcase"):
    if case.find("failure") is not None or case.find("error") is not None:
        print(f'{case.get("classname")}/{case.get("name")}')
