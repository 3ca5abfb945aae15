// Magenta hibiscus, six petals, wet-in-wet bleeds, a dark wine centre.
function setup() {
  createCanvas(600, 600, WEBGL);
  brush.scaleBrushes(3);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background(248, 244, 240);
  brush.noStroke();
  push();
  translate(300, 300);

  // leaves
  brush.fillBleed(0.5);
  brush.fillTexture(0.4, 0.4);
  brush.fill(60, 110, 70, 160);
  for (const a of [0.6, 3.5]) {
    brush.beginShape(0.8);
    brush.vertex(0, 0);
    brush.vertex(230 * cos(a - 0.25), 230 * sin(a - 0.25));
    brush.vertex(270 * cos(a), 270 * sin(a));
    brush.vertex(230 * cos(a + 0.25), 230 * sin(a + 0.25));
    brush.endShape(true);
  }

  const n = 6;
  for (let k = 0; k < n; k++) {
    rotate(TWO_PI / n);
    brush.fillBleed(0.45);
    brush.fillTexture(0.7, 0.4);
    brush.fill(206, 32, 140, 170);
    brush.beginShape(0.65);
    brush.vertex(0, 0);
    brush.vertex(120, -95);
    brush.vertex(185, -70);
    brush.vertex(205, -10);
    brush.vertex(195, 50);
    brush.vertex(135, 90);
    brush.endShape(true);
    brush.fillBleed(0.2);
    brush.fill(150, 10, 96, 120);
    brush.beginShape(0.5);
    brush.vertex(0, 0);
    brush.vertex(80, -30);
    brush.vertex(95, 15);
    brush.endShape(true);
  }
  pop();

  brush.fillBleed(0.3);
  brush.fillTexture(0.5, 0.5);
  brush.fill(90, 6, 50, 220);
  brush.circle(300, 300, 40, true);
  brush.fill(250, 220, 120, 230);
  brush.fillBleed(0.05);
  for (let i = 0; i < 8; i++) {
    const a = i * 0.8 - 2.2;
    brush.circle(300 + 30 * cos(a) + 40, 300 + 30 * sin(a) - 60, 5, true);
  }
}
