"""placeholder"""
class Sketch: pass
def extract_sketch(reply): return None
