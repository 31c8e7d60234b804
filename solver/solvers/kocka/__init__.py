"""Kocka (10000) and Pig: the push-your-luck turn model and the races between players.
"""
