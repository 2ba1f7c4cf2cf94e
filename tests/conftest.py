from conformance.profiles import register_profiles

register_profiles()
