// Coral hibiscus seen a little from the side: five petals squashed vertically, an orange-red eye.
function setup() {
  createCanvas(600, 600, WEBGL);
  brush.scaleBrushes(3);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background(246, 242, 236);
  brush.noStroke();
  const cx = 300, cy = 310;

  brush.fillBleed(0.4);
  brush.fillTexture(0.45, 0.35);
  brush.fill(74, 120, 84, 150);
  brush.beginShape(0.8);
  brush.vertex(cx, cy);
  brush.vertex(cx + 170, cy + 120);
  brush.vertex(cx + 250, cy + 210);
  brush.vertex(cx + 130, cy + 190);
  brush.endShape(true);

  for (let k = 0; k < 5; k++) {
    const a = -HALF_PI + 0.3 + (k * TWO_PI) / 5;
    const len = 175 + 25 * sin(k * 2.1);
    brush.fillBleed(0.35);
    brush.fillTexture(0.65, 0.5);
    brush.fill(248, 112, 92, 190);
    brush.beginShape(0.6);
    brush.vertex(cx, cy);
    for (let i = 0; i <= 7; i++) {
      const t = -0.62 + (1.24 * i) / 7;
      const r = len + 12 * sin(i * 2.4);
      brush.vertex(cx + r * cos(a + t), cy + 0.78 * r * sin(a + t));
    }
    brush.endShape(true);
  }
  for (let k = 0; k < 5; k++) {
    const a = -HALF_PI + 0.3 + (k * TWO_PI) / 5;
    brush.fillBleed(0.2);
    brush.fillTexture(0.4, 0.3);
    brush.fill(226, 70, 60, 130);
    brush.beginShape(0.5);
    brush.vertex(cx, cy);
    brush.vertex(cx + 90 * cos(a - 0.3), cy + 70 * sin(a - 0.3));
    brush.vertex(cx + 105 * cos(a + 0.3), cy + 80 * sin(a + 0.3));
    brush.endShape(true);
  }
  brush.fillBleed(0.3);
  brush.fill(176, 30, 30, 220);
  brush.circle(cx, cy, 44, true);
  brush.fillBleed(0.1);
  brush.fill(250, 200, 80, 230);
  brush.beginShape(0.2);
  brush.vertex(cx - 3, cy);
  brush.vertex(cx + 20, cy - 110);
  brush.vertex(cx + 28, cy - 108);
  brush.vertex(cx + 5, cy + 2);
  brush.endShape(true);
  for (let i = 0; i < 5; i++) {
    brush.circle(cx + 24 + 14 * cos(i * 1.3), cy - 114 + 8 * sin(i * 2.1), 5, true);
  }
}
