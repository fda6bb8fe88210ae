"""Skill Prism: one Agent Skills set, seen the way each agent runtime sees it."""

__version__ = "0.1.0"

APP_NAME = "Skill Prism"
ORGANIZATION = "Skill Prism"
APP_ID = "org.skillprism.SkillPrism"
