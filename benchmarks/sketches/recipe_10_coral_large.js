// A big coral-red hibiscus filling most of the sheet: wide petals, heavy wet washes.
function setup() {
  createCanvas(600, 600, WEBGL);
  brush.scaleBrushes(3.5);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background(249, 245, 238);
  brush.noStroke();
  push();
  translate(300, 300);
  rotate(-0.2);
  for (let k = 0; k < 5; k++) {
    brush.fillBleed(0.5);
    brush.fillTexture(0.6, 0.5);
    brush.fill(240, 96, 80, 190);
    brush.beginShape(0.7);
    brush.vertex(0, 0);
    brush.vertex(150, -170);
    brush.vertex(250, -120);
    brush.vertex(280, 0);
    brush.vertex(250, 120);
    brush.vertex(150, 170);
    brush.endShape(true);
    rotate(TWO_PI / 5);
  }
  for (let k = 0; k < 5; k++) {
    rotate(TWO_PI / 5);
    brush.fillBleed(0.3);
    brush.fillTexture(0.5, 0.4);
    brush.fill(210, 50, 56, 160);
    brush.beginShape(0.6);
    brush.vertex(0, 0);
    brush.vertex(120, -50);
    brush.vertex(150, 0);
    brush.vertex(120, 50);
    brush.endShape(true);
  }
  pop();
  brush.fillBleed(0.25);
  brush.fillTexture(0.5, 0.5);
  brush.fill(120, 10, 30, 220);
  brush.circle(300, 300, 60, true);
  brush.fillBleed(0.05);
  brush.fill(244, 150, 110, 230);
  brush.beginShape(0.1);
  brush.vertex(296, 300);
  brush.vertex(230, 170);
  brush.vertex(238, 166);
  brush.vertex(304, 298);
  brush.endShape(true);
  brush.fill(252, 214, 70, 240);
  for (let i = 0; i < 9; i++) {
    brush.circle(230 + 20 * cos(i * 0.7), 162 + 16 * sin(i * 1.2), 6, true);
  }
}
