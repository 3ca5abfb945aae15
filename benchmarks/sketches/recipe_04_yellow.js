// A yellow hibiscus with a maroon eye, five wide petals, painted large.
function setup() {
  createCanvas(600, 600, WEBGL);
  brush.scaleBrushes(3);
  noLoop();
}

function petal(cx, cy, a, r, w) {
  brush.beginShape(0.7);
  brush.vertex(cx, cy);
  const steps = 9;
  for (let i = 0; i <= steps; i++) {
    const t = -w + (2 * w * i) / steps;
    const rr = r * (0.9 + 0.1 * cos(t * 3)) + 10 * sin(i * 2.7);
    brush.vertex(cx + rr * cos(a + t), cy + rr * sin(a + t));
  }
  brush.endShape(true);
}

function draw() {
  translate(-width / 2, -height / 2);
  background(252, 250, 243);
  brush.noStroke();
  const cx = 300, cy = 300;
  for (let k = 0; k < 5; k++) {
    const a = 0.2 + (k * TWO_PI) / 5;
    brush.fillBleed(0.35);
    brush.fillTexture(0.6, 0.45);
    brush.fill(250, 206, 40, 200);
    petal(cx, cy, a, 240, 0.7);
    brush.fillBleed(0.25);
    brush.fill(240, 160, 20, 140);
    petal(cx, cy, a + 0.08, 150, 0.45);
  }
  brush.fillBleed(0.3);
  brush.fillTexture(0.5, 0.6);
  brush.fill(130, 20, 30, 220);
  brush.circle(cx, cy, 55, true);
  brush.fill(90, 10, 20, 230);
  brush.circle(cx, cy, 24, true);
  brush.fillBleed(0.1);
  brush.fill(230, 120, 40, 220);
  brush.beginShape(0.2);
  brush.vertex(cx - 5, cy);
  brush.vertex(cx - 70, cy - 80);
  brush.vertex(cx - 62, cy - 88);
  brush.vertex(cx + 5, cy - 4);
  brush.endShape(true);
  brush.fill(170, 60, 20, 230);
  for (let i = 0; i < 6; i++) {
    brush.circle(cx - 68 + 12 * cos(i * 1.1), cy - 92 + 10 * sin(i * 1.9), 5, true);
  }
}
