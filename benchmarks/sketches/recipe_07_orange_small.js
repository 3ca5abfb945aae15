// A small apricot-orange hibiscus in the middle of the sheet, with three leaves and a bud.
function setup() {
  createCanvas(600, 600, WEBGL);
  brush.scaleBrushes(2);
  noLoop();
}

function leaf(x, y, a, len) {
  brush.beginShape(0.8);
  brush.vertex(x, y);
  brush.vertex(x + len * 0.55 * cos(a - 0.35), y + len * 0.55 * sin(a - 0.35));
  brush.vertex(x + len * cos(a), y + len * sin(a));
  brush.vertex(x + len * 0.55 * cos(a + 0.35), y + len * 0.55 * sin(a + 0.35));
  brush.endShape(true);
}

function draw() {
  translate(-width / 2, -height / 2);
  background(251, 249, 244);
  brush.noStroke();
  brush.fillBleed(0.4);
  brush.fillTexture(0.5, 0.4);
  brush.fill(88, 132, 72, 170);
  leaf(300, 300, 0.9, 190);
  leaf(300, 300, 2.6, 170);
  leaf(300, 300, 4.4, 160);
  // a closed bud on its stalk
  brush.fill(120, 150, 70, 190);
  brush.circle(430, 170, 16, true);
  brush.fill(240, 130, 60, 200);
  brush.beginShape(0.6);
  brush.vertex(424, 164);
  brush.vertex(440, 118);
  brush.vertex(450, 160);
  brush.endShape(true);

  for (let k = 0; k < 5; k++) {
    const a = -1.2 + (k * TWO_PI) / 5;
    brush.fillBleed(0.3);
    brush.fillTexture(0.6, 0.45);
    brush.fill(250, 150, 70, 200);
    brush.beginShape(0.7);
    brush.vertex(300, 300);
    for (let i = 0; i <= 6; i++) {
      const t = -0.66 + (1.32 * i) / 6;
      const r = 125 + 8 * sin(i * 2.2 + k);
      brush.vertex(300 + r * cos(a + t), 300 + r * sin(a + t));
    }
    brush.endShape(true);
    brush.fillBleed(0.2);
    brush.fill(236, 96, 50, 150);
    brush.beginShape(0.5);
    brush.vertex(300, 300);
    brush.vertex(300 + 70 * cos(a - 0.25), 300 + 70 * sin(a - 0.25));
    brush.vertex(300 + 78 * cos(a + 0.2), 300 + 78 * sin(a + 0.2));
    brush.endShape(true);
  }
  brush.fillBleed(0.2);
  brush.fill(150, 30, 30, 220);
  brush.circle(300, 300, 26, true);
  brush.fillBleed(0.05);
  brush.fill(250, 214, 90, 240);
  for (let i = 0; i < 10; i++) {
    brush.circle(300 + 12 * cos(i * 0.63), 300 + 12 * sin(i * 0.63), 3, true);
  }
}
